"""GenEnv-Sim-Bamboogle-v0: the synthetic world, k-hop questions, validation and the searching oracle."""

import gymnasium as gym
import numpy as np
import pytest

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.envs.bamboogle.generator import ANSWER_TYPES, Chain, answer_types_for, resolve
from genenv_gym.envs.bamboogle.sim_domain import BamboogleSimDomain
from genenv_gym.envs.bamboogle.world import World, WorldConfig
from genenv_gym.task import Task


@pytest.fixture(scope="module")
def domain():
    return BamboogleSimDomain()


def test_world_is_deterministic_with_unique_names_and_distractors():
    a, b = World(), World()
    assert a.documents() == b.documents()
    assert len(a.entities) == len({d["contents"].split("\n")[0] for d in a.documents()})
    assert any(e.distractor for e in a.entities.values())
    assert World(WorldConfig(seed=1)).documents() != a.documents()
    for bad in ({"distractors": 5}, {"name_similarity": 2.0}, {"cities": 2, "countries": 3}):
        with pytest.raises(ValueError):
            World(WorldConfig(**bad))


def test_every_level_and_answer_type_generates_valid_tasks(domain):
    rng = np.random.default_rng(0)
    seen = set()
    for level in range(4):
        for _ in range(40):
            task = domain.generate(level, rng)
            assert domain.validate(task) == [], task.evaluation
            assert task.difficulty["hops"] == level + 1 == len(task.evaluation["oracle_queries"])
            seen.add((level + 1, task.difficulty["answer_type"]))
    assert seen == {(h, t) for h in range(1, 5) for t in answer_types_for(h)}
    assert set(ANSWER_TYPES) == {t for _, t in seen}


def test_validation_rejects_wrong_answers_broken_chains_and_unretrievable_hops(domain):
    task = domain.generate(1, np.random.default_rng(3))
    data = task.to_dict()
    data["evaluation"]["golden_answers"] = ["Nowhere"]
    assert "different answer" in " ".join(domain.validate(Task.from_dict(data)))
    data = task.to_dict()
    data["evaluation"]["chain"]["steps"] = ["capital", "founder"]
    assert "does not resolve" in " ".join(domain.validate(Task.from_dict(data)))
    data = task.to_dict()
    data["evaluation"]["oracle_queries"] = ["qwxyz", "zzzz"]
    assert "does not retrieve" in " ".join(domain.validate(Task.from_dict(data)))


def test_chains_resolve_to_one_answer():
    world = World()
    org = world.real("organisation")[0]
    visited, answer = resolve(world, Chain(org.name, ("founder", "birth_year"), "date"))
    assert visited == [org.name, org.relations["founder"]]
    assert answer == str(world.entities[org.relations["founder"]].attributes["birth_year"])


def test_sim_env_oracle_searches_each_hop_then_answers():
    env = gym.make("GenEnv-Sim-Bamboogle-v0")
    domain = env.unwrapped.domain
    rng = np.random.default_rng(7)
    for level in range(4):
        task = domain.generate(level, rng)
        env.reset(options={"task": task})
        total, steps, done = 0.0, 0, False
        while not done:
            action = env.unwrapped.episode.oracle_action()
            _, reward, term, trunc, info = env.step(action)
            total, steps, done = total + reward, steps + 1, term or trunc
        assert total == 1.0 and term and steps == level + 2
        assert len(info["searches"]) == level + 1 and info["metrics"]["hops"] == level + 1
    env.close()


def test_closed_book_guess_fails_and_summary_is_per_hop(domain):
    env = gym.make("GenEnv-Sim-Bamboogle-v0")
    rows = []
    for seed in range(6):
        env.reset(seed=seed)
        _, reward, *_, step_info = env.step("<answer>Paris</answer>")
        assert reward == 0.0
        rows.append(step_info["metrics"])
    summary = domain.summarize_metrics(rows)
    assert summary["em"] == 0.0 and any(k.startswith("em_hops") for k in summary)


def test_sim_knobs_are_checked():
    with pytest.raises(ValueError, match="answer_types"):
        BamboogleSimDomain(answer_types=["colour"])
    with pytest.raises(ValueError, match="paraphrase"):
        BamboogleSimDomain(paraphrase=2)
    only_yesno = BamboogleSimDomain(answer_types=["yesno"], paraphrase=1.0)
    task = only_yesno.generate(2, np.random.default_rng(0))
    assert task.evaluation["golden_answers"][0] in ("yes", "no") and task.difficulty["paraphrase"]
    assert len(only_yesno.load_tasks(["hops_2"])) == 8
