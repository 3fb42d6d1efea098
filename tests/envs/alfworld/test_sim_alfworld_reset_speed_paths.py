"""The fast paths of Sim-ALFWorld's generating reset change no task: the planner worker's translations handed
over on disk, the main process's work overlapped with the worker's, and their failure modes."""

import os
import time

import numpy as np
import pytest

from genenv_gym.envs.alfworld import engine as engine_module
from genenv_gym.envs.alfworld.commands import normalize_command
from genenv_gym.envs.alfworld.data import read_game
from genenv_gym.envs.alfworld.domain import ALFWorldDomain
from genenv_gym.envs.alfworld.planner import (
    PlanCache,
    PlannerWorker,
    TranslationCache,
    translation_dir,
    translation_key,
)

#: ALFWorldDomain(scene_split="valid_unseen").generate at levels 1, 3, 0 with default_rng(0), as generated
#: before the translation cache and the overlap existed: (task id, goal, expert plan).
PINNED = [
    (
        "alfworld_gen_pick_and_place_simple_1e291f71356d",
        "put some pot on shelf",
        ["go to countertop 3", "take pot 1 from countertop 3", "go to shelf 3", "move pot 1 to shelf 3"],
    ),
    (
        "alfworld_gen_pick_and_place_simple_6adaa54cd885",
        "put a cellphone in safe",
        [
            "go to drawer 2",
            "open drawer 2",
            "take cellphone 1 from drawer 2",
            "go to safe 1",
            "open safe 1",
            "move cellphone 1 to safe 1",
        ],
    ),
    (
        "alfworld_gen_look_at_obj_in_light_bd59e4729d3b",
        "examine the book with the desklamp",
        ["go to bed 1", "take book 1 from bed 1", "go to desk 1", "use desklamp 1"],
    ),
]


def generated(domain: ALFWorldDomain) -> list[tuple[str, str, list[str]]]:
    rng = np.random.default_rng(0)
    tasks = [domain.generate(level, rng) for level in (1, 3, 0)]
    assert [domain.validate(task) for task in tasks] == [[], [], []]
    return [(t.id, t.evaluation["goal"], list(t.evaluation["walkthrough"])) for t in tasks]


def play(engine: engine_module.AlfredEngine, game: dict) -> list[tuple]:
    """Every state along the game's walkthrough: text, admissible commands, won."""
    engine.load(game)
    states = [engine.reset()]
    states += [engine.step(normalize_command(action)) for action in game["walkthrough"]]
    return [(s.feedback, s.admissible_commands, s.won) for s in states]


@pytest.fixture(scope="module")
def game(alfworld_data_dir: str) -> dict:
    domain = ALFWorldDomain(data_dir=alfworld_data_dir, scene_split="valid_unseen", plan_cache=None)
    record = next(g for g in domain.games() if g.id.split("/")[0].endswith("-308"))  # a small bedroom
    return read_game(record.path)


def test_seeded_generation_is_the_same_cold_warm_and_without_a_cache(alfworld_data_dir, tmp_path):
    """The same tasks and plans for a seed: planning with an empty cache, then in a new domain on the cache
    it left (plans and translations read from disk), then with no cache at all (the overlapped path)."""
    for cache in (tmp_path, tmp_path, None):
        domain = ALFWorldDomain(data_dir=alfworld_data_dir, scene_split="valid_unseen", plan_cache=cache)
        try:
            assert generated(domain) == PINNED, f"plan_cache={cache}"
        finally:
            domain.close()
    assert len(list(translation_dir(tmp_path).rglob("*.pkl.z"))) >= len(PINNED)


def test_a_translation_from_the_worker_loads_without_translating_and_plays_the_same(game, tmp_path):
    worker = PlannerWorker(timeout_s=60, cache_dir=tmp_path)
    try:
        assert worker.plan(game).status == "solved"
    finally:
        worker.close()
    translations = TranslationCache(translation_dir(tmp_path))
    engine = engine_module.AlfredEngine()
    key = translation_key(game["pddl_domain"], game["pddl_problem"])

    engine_module.clear_caches()
    assert translations.seed(game["pddl_domain"], game["pddl_problem"])
    seeded = dict(engine_module._TRANSLATIONS)
    assert list(seeded) == [key]
    from_disk = play(engine, game)
    assert list(engine_module._TRANSLATIONS) == [key]  # the engine used it and translated nothing
    assert engine_module._TRANSLATIONS[key] is seeded[key]

    engine_module.clear_caches()
    assert play(engine, game) == from_disk  # a fresh translation plays the same game
    engine.close()


def test_unreadable_cache_files_are_ignored(game, tmp_path):
    translations = TranslationCache(tmp_path)
    domain, problem = game["pddl_domain"], game["pddl_problem"]
    digest = translation_key(domain, problem)[0]
    path = tmp_path / digest[:2] / f"{digest}.pkl.z"
    translations.put("0" * 40, ("another problem's", "translation"))
    path.parent.mkdir(parents=True)
    (tmp_path / "00" / f"{'0' * 40}.pkl.z").replace(path)  # a file that says it holds another key
    for content in (None, b"", b"not zlib", path.read_bytes()[:20]):
        if content is not None:
            path.write_bytes(content)
        engine_module.clear_caches()
        assert translations.get(digest) is None and not translations.seed(domain, problem)
    engine = engine_module.AlfredEngine()
    engine.load(game)  # the engine translates as usual
    assert not engine.reset().won
    engine.close()

    plans = PlanCache(tmp_path / "plans")
    for content in ("{", "[]", '{"engine": 1}', "null"):
        path = tmp_path / "plans" / "ab" / f"ab{'c' * 38}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        assert plans.get(f"ab{'c' * 38}", timeout_s=5) is None


def test_prune_keeps_the_newest_translations(tmp_path):
    translations = TranslationCache(tmp_path)
    for number, digest in enumerate(("a" * 40, "b" * 40, "c" * 40)):
        translations.put(digest, number)
        stamp = time.time() - 100 + number
        os.utime(tmp_path / digest[:2] / f"{digest}.pkl.z", (stamp, stamp))
    translations.prune(keep=2)
    assert translations.get("a" * 40) is None
    assert (translations.get("b" * 40), translations.get("c" * 40)) == (1, 2)


def test_work_done_meanwhile_overlaps_the_plan_and_its_failure_keeps_the_answer(game):
    worker = PlannerWorker(timeout_s=60)
    calls = []

    def failing() -> None:
        calls.append(worker._process.poll())  # the worker is running the request
        raise RuntimeError("work ahead failed")

    try:
        outcome = worker.plan(game, meanwhile=failing)
        assert outcome.status == "solved" and outcome.plan and calls == [None]
        assert worker.plan(game, meanwhile=failing) == outcome and calls == [None]  # memo: not asked again
        again = worker.plan(dict(game, pddl_problem=game["pddl_problem"] + " "))  # the protocol is in step
        assert again.plan == outcome.plan
    finally:
        worker.close()
