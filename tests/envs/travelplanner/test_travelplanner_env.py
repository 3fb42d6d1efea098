"""GenEnv-TravelPlanner-v0: sole planning on the fixtures and the 45 real train queries, official verdicts."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.agents.scripted import OracleAgent, RandomAgent
from genenv_gym.datasets.data_dir import MissingDataError
from genenv_gym.envs.travelplanner.action import parse_plan, render_plan_json, render_plan_text
from genenv_gym.envs.travelplanner.domain import summarize_plan_metrics
from genenv_gym.fixtures import FIXTURES_DIR

ENV_ID = "GenEnv-TravelPlanner-v0"


def make(**kwargs):
    kwargs.setdefault("data_dir", str(FIXTURES_DIR))
    return gym.make(ENV_ID, **kwargs)


def gold(env) -> list[dict]:
    """The gold plan of the env's current task (non-empty days)."""
    plan = json.loads(render_plan_json(env.unwrapped.task.evaluation["gold_plan"]))
    return [dict(day) for day in plan]


def play(env, task_id: str, action: object) -> tuple[float, dict]:
    env.reset(options={"task_id": task_id})
    _, reward, terminated, truncated, info = env.unwrapped.step(action)
    assert terminated and not truncated
    return reward, info


def test_fixture_oracle_scores_one_in_both_formats_and_the_prompt_holds_the_query() -> None:
    env = make()
    assert [t.id for t in env.unwrapped.tasks] == ["train/1"]
    obs, info = env.reset(options={"task_id": "train/1"})
    assert obs.endswith("Travel Plan:") and "Plan a 3-day trip for one person from Harborview" in obs
    assert "Given information: []\nQuery: " in obs and "Current City: from Oakridge to Lakeside" in obs
    assert info["messages"] == [{"role": "user", "content": obs}] and info["category"] == "hard-3day"
    oracle = env.unwrapped.episode.oracle_action()
    assert oracle.startswith("Day 1:\nCurrent City: from Harborview to Millbrook\n")
    reward, info = play(env, "train/1", oracle)
    assert reward == 1.0 and info["success"] and info["error_type"] is None and info["plan_format"] == "text"
    assert info["total_cost"] == 1695 and info["delivered"] and info["hard"]["valid_cost"]["passed"]
    reward, info = play(env, "train/1", "```json\n" + render_plan_json(gold(env)) + "\n```")
    assert reward == 1.0 and info["plan_format"] == "json"
    assert play(env, "train/1", json.dumps({"plan": gold(env)}))[0] == 1.0


def test_validation_split_fixture_self_driving_two_people_and_a_query_without_plan() -> None:
    env = make(split="validation")
    assert [t.id for t in env.unwrapped.tasks] == ["validation/1", "validation/2"]
    assert env.unwrapped.domain.reference_failures() == {
        "validation/2": "the split file has no annotated plan for this query"
    }
    reward, info = play(env, "validation/1", env.unwrapped.domain.oracle_action(env.unwrapped.tasks[0]))
    # self-driving int(1210 * 0.05) twice + meals (20 + 9 + 14 + 26 + 12) x 2 + 2 nights 65 x ceil(2 / 1)
    assert reward == 1.0 and info["total_cost"] == 2 * 60 + 81 * 2 + 2 * 65 * 2
    assert [t.id for t in make(split="validation", levels=["easy"]).unwrapped.tasks] == ["validation/2"]
    with pytest.raises(ValueError, match="unknown TravelPlanner levels"):
        make(levels=["extreme"])
    with pytest.raises(MissingDataError, match=r"test\.jsonl"):
        make(split="test")


def test_lenient_text_format() -> None:
    text = """Here is your plan.

**Day 1:**
- **Current City:** from Harborview to Millbrook
- **Transportation:** Flight Number: F0000001, from Harborview to Millbrook, Departure Time: 08:00
- Breakfast: N/A
- Dinner: The Copper Kettle, Millbrook.
- Accommodations: Quiet Loft by the Mill, Millbrook

### Day 2
Current City: Millbrook
Breakfast: Cafe Orchard, Millbrook
Attractions:
- Millbrook Clock Tower, Millbrook
- Old Mill Park, Millbrook.
Lunch: The Lantern Noodle Bar, Millbrook
Dinner: Miller's Grill, Millbrook
Accommodation: Quiet Loft by the Mill, Millbrook

Day 3: Current City: from Millbrook to Harborview
Transportation: Taxi, from Millbrook to Harborview
Accommodation: None
Enjoy your trip!"""
    plan, plan_format, reason = parse_plan(text)
    assert plan_format == "text" and reason is None and [d["days"] for d in plan] == [1, 2, 3]
    assert plan[0]["breakfast"] == "-" and plan[0]["dinner"] == "The Copper Kettle, Millbrook"
    assert plan[0]["attraction"] == "-" and plan[0]["accommodation"] == "Quiet Loft by the Mill, Millbrook"
    assert plan[1]["attraction"] == "Millbrook Clock Tower, Millbrook;Old Mill Park, Millbrook;"
    assert plan[1]["transportation"] == "-" and plan[2]["current_city"] == "from Millbrook to Harborview"
    assert plan[2]["accommodation"] == "-"
    assert play(make(), "train/1", text)[0] == 1.0
    draft = "Draft:\nDay 1:\nCurrent City: Nowhere\nDay 2:\nCurrent City: Nowhere\n\nFinal plan:\n"
    assert parse_plan(draft + text)[0] == plan


def test_mutations_fail_the_expected_constraint() -> None:
    env = make(reward_mode="final_pass")
    env.reset(options={"task_id": "train/1"})
    plan = gold(env)

    def first_failure(days: list[dict]) -> tuple[float, str]:
        reward, info = play(env, "train/1", render_plan_text(days))
        return reward, info["error_type"]

    repeated = [dict(day) for day in plan]
    repeated[1]["lunch"] = plan[0]["dinner"]
    assert first_failure(repeated) == (0.0, "commonsense:is_valid_restaurants")
    unknown = [dict(day) for day in plan]
    unknown[1]["dinner"] = "Nowhere Diner, Millbrook"
    assert first_failure(unknown) == (0.0, "commonsense:is_valid_information_in_sandbox")
    driving = [dict(day) for day in plan]
    driving[2]["transportation"] = "Self-driving, from Millbrook to Harborview"
    reward, info = play(env, "train/1", render_plan_text(driving))
    assert info["commonsense"]["is_valid_transportation"]["passed"] is False
    assert info["hard"]["valid_transportation"]["passed"] is False and reward == 0.0
    noodles = [dict(day) for day in plan]
    noodles[1]["lunch"] = "Cafe Orchard, Millbrook"
    noodles[1]["breakfast"] = "The Lantern Noodle Bar, Millbrook"
    assert first_failure(noodles) == (1.0, None)  # the cuisine is served at another meal
    reward, info = play(env, "train/1", render_plan_text(plan[:2]))
    assert reward == 0.0 and info["error_type"] == "commonsense:is_reasonable_visiting_city"
    assert info["commonsense"]["is_not_absent"] == {"passed": False, "reason": "Invalid Days"}
    assert info["hard"] == {}  # not evaluated: the documented empty form
    assert info["metrics"]["hard"] == {} and info["metrics"]["commonsense"]["is_not_absent"] is False


@pytest.mark.parametrize(
    "action, error_type",
    [
        ("", "not_delivered"),
        ("I cannot help with that.", "not_delivered"),
        ("x" * 2_000_000, "action_error:too_long"),
        ("[" * 50_000 + "]" * 50_000, "not_delivered"),
        ("\x00\x01\x7f Day", "not_delivered"),
        ('[{"days": 1, "current_city": 5}]', "malformed_plan"),
        ('[{"days": 1, "current_city": "' + "from " * 5000 + '"}]', "malformed_plan"),
        ("Day 1:\nCurrent City: from Harborview\n", "malformed_plan"),
        (42, "action_error:not_text"),
        (None, "action_error:not_text"),
    ],
)
def test_hostile_actions_are_outcomes(action: object, error_type: str) -> None:
    env = make()
    reward, info = play(env, "train/1", action)
    assert reward == 0.0 and not info["success"]
    assert info["error_type"] == error_type and info["error"]
    assert info["metrics"]["final_pass"] is False and info["metrics"]["hard_applicable"] == 5


def test_summarize_metrics_official_rates_and_paper_mean() -> None:
    env = make()
    episodes = []
    for action in (
        env.unwrapped.domain.oracle_action(env.unwrapped.tasks[0]),  # passes everything (5 hard)
        "no plan",  # not delivered
        render_plan_text([dict(d) for d in env.unwrapped.tasks[0].evaluation["gold_plan"]][:2]),  # gated
    ):
        episodes.append(play(env, "train/1", action)[1]["metrics"])
    cs_absent = sum(v is True for v in episodes[2]["commonsense"].values())
    rates = summarize_plan_metrics([*episodes, {}])  # an episode without metrics is a plan not delivered
    cs_micro, hd_micro = (8 + cs_absent) / 32, 5 / (5 + 5 + 5 + 1)
    assert rates == {
        "Delivery Rate": 2 / 4,
        "Commonsense Constraint Micro Pass Rate": cs_micro,
        "Commonsense Constraint Macro Pass Rate": 1 / 4,
        "Hard Constraint Micro Pass Rate": hd_micro,
        "Hard Constraint Macro Pass Rate": 1 / 4,
        "Final Pass Rate": 1 / 4,
        "paper_mean": (cs_micro + 1 / 4 + hd_micro + 1 / 4) / 4,
    }
    assert summarize_plan_metrics([]) == {}


def test_seeded_resets_and_random_baseline_are_deterministic(shared_data_dir) -> None:
    def run(seed: int) -> list[tuple[str, float]]:
        env = gym.make(ENV_ID, data_dir=str(shared_data_dir))
        agent = RandomAgent(env, seed=seed)
        obs, info = env.reset(seed=seed)
        out = []
        for _ in range(5):
            action = agent.act(obs, info)
            out.append((info["task_id"], action, env.step(action)[1]))
            obs, info = env.reset()
        return out

    assert run(7) == run(7) and run(7) != run(8)


def test_real_45_train_gold_plans_score_one(shared_data_dir) -> None:
    env = gym.make(ENV_ID, data_dir=str(shared_data_dir))
    tasks = env.unwrapped.tasks
    assert len(tasks) == 45 and tasks[0].id == "train/1" and tasks[-1].id == "train/45"
    assert {t.category for t in tasks} == {
        f"{lv}-{d}day" for lv in ("easy", "medium", "hard") for d in (3, 5, 7)
    }
    oracle, metrics = OracleAgent(env), []
    for task in tasks:
        obs, info = env.reset(options={"task_id": task.id})
        _, reward, _, _, step_info = env.step(oracle.act(obs, info))
        assert reward == 1.0, (task.id, step_info["reasons"])
        metrics.append(step_info["metrics"])
        json_reward = play(env, task.id, render_plan_json(gold(env)))[0]
        assert json_reward == 1.0, task.id
    rates = env.unwrapped.domain.summarize_metrics(metrics)
    assert all(value == 1.0 for value in rates.values()), rates
    assert sum(m["hard_applicable"] for m in metrics) == 105
