"""Games' translations stored on disk play exactly as fresh ones; a bad stored file is made again; each
process keeps only a few games in memory; the copies of an async vector env share what their parent
prepared."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from alfworld_transcript import transcript

from genenv_gym.envs.alfworld import engine as engine_module
from genenv_gym.envs.alfworld.data import discover_games, read_game
from genenv_gym.envs.alfworld.planner import TranslationCache, translation_key

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def games(alfworld_data_dir: str):
    games = discover_games(alfworld_data_dir)
    return [games[0], games[40], games[-1]]  # look_at, clean, pick_two


def digest_of(data) -> str:
    return translation_key(data["pddl_domain"], data["pddl_problem"])[0]


def stored_file(store: TranslationCache, data) -> Path:
    return store.directory / digest_of(data)[:2] / f"{digest_of(data)}.pkl.z"


class CountingStore(TranslationCache):
    """A store that counts the translations read from it."""

    reads = 0

    def get(self, digest: str):
        translation = super().get(digest)
        self.reads += translation is not None
        return translation


@pytest.mark.shared_data
def test_stored_translations_play_as_the_engine_without_a_store(games, tmp_path):
    store = CountingStore(tmp_path)
    plain = engine_module.AlfredEngine()
    for seed, game in enumerate(games):
        data = read_game(game.path)
        engine_module.clear_caches()
        expected = transcript(plain, data, data["walkthrough"], np.random.default_rng(seed))

        engine_module.clear_caches()
        first = engine_module.AlfredEngine(translations=store)  # translates, and stores the translation
        assert transcript(first, data, data["walkthrough"], np.random.default_rng(seed)) == expected
        assert stored_file(store, data).is_file() and store.reads == 0

        engine_module.clear_caches()
        from_disk = engine_module.AlfredEngine(translations=store)
        assert (
            transcript(
                from_disk,
                data,
                data["walkthrough"],
                np.random.default_rng(seed),
                between_resets=engine_module.clear_caches,
            )
            == expected
        )
        assert store.reads == 2  # at the load, and at the reset after the process forgot it
        store.reads = 0
        for engine in (first, from_disk):
            engine.close()
    plain.close()


@pytest.mark.shared_data
@pytest.mark.parametrize("damage", ["missing", "empty", "truncated", "garbage", "another game's"])
def test_a_missing_or_corrupt_stored_translation_is_made_again(games, tmp_path, damage):
    store = TranslationCache(tmp_path)
    data, other = read_game(games[0].path), read_game(games[1].path)
    engine_module.clear_caches()
    engine = engine_module.AlfredEngine(translations=store)
    expected = transcript(engine, data, data["walkthrough"], np.random.default_rng(0))
    engine.load(other)
    path = stored_file(store, data)
    content = path.read_bytes()
    damaged = {
        "missing": None,
        "empty": b"",
        "truncated": content[: len(content) // 2],
        "garbage": b"\x00not a translation" * 100,
        "another game's": stored_file(store, other).read_bytes(),
    }[damage]
    if damaged is None:
        path.unlink()
    else:
        path.write_bytes(damaged)

    engine_module.clear_caches()
    assert (
        transcript(engine, data, data["walkthrough"], np.random.default_rng(0)) == expected
    )  # no crash, the same game
    assert path.read_bytes() != damaged and store.get(digest_of(data)) is not None
    engine.close()


MEMO_CHECK = """
import json, sys
import mementos.core
from genenv_gym.envs.alfworld import engine as engine_module
from genenv_gym.envs.alfworld.data import discover_games
from genenv_gym.envs.alfworld.domain import ALFWorldDomain

data_dir, cache = sys.argv[1], sys.argv[2]
found = discover_games(data_dir)
domain = ALFWorldDomain(data_dir=data_dir, plan_cache=cache)
tasks = [domain.game_task(game) for game in (found[0], found[40], found[-1])]  # look_at, clean, pick_two
sizes, bounded = [], True
for _ in range(2):
    for task in tasks:
        episode = domain.start_episode(task)
        episode.step(episode.oracle_action())
        episode.close()  # as an env does at its next reset: the engine goes back to the domain's pool
        for kind in (False, True):  # plain and planner translations are kept apart
            kept = [key for key in engine_module._TRANSLATIONS if key[1] is kind]
            bounded &= len(kept) <= engine_module.TRANSLATION_CACHE_SIZE
        bounded &= len(engine_module._LOGIC_CACHE) <= engine_module.LOGIC_CACHE_SIZE
        sizes.append(len(mementos.core._memento_cache))
domain.close()
print(json.dumps({"sizes": sizes, "bounded": bounded}))
"""


@pytest.mark.shared_data
def test_a_process_keeps_a_few_games_however_many_it_visits(alfworld_data_dir, tmp_path):
    # a fresh interpreter: what earlier tests left alive in this one (the raw engine's games) holds
    # propositions the memo must keep, which is not what this measures
    result = subprocess.run(
        [sys.executable, "-c", MEMO_CHECK, alfworld_data_dir, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    sizes = report["sizes"]
    assert report["bounded"]
    # textworld's propositions of the games left behind are let go: no more on the second round than on the
    # first, and fewer back on the first game than after the last one
    assert max(sizes[3:]) <= max(sizes[:3]) and sizes[3] < sizes[2], sizes
    assert len(list(tmp_path.rglob("*.pkl.z"))) == 3  # each game translated once, kept on disk


FORK_CHECK = """
import gc, json, multiprocessing, os, sys
import gymnasium as gym
import genenv_gym

genenv_gym.register_envs()
env = gym.make("GenEnv-ALFWorld-v0", data_dir=sys.argv[1])
made_lazily = "textworld" not in sys.modules
env.close()

def copy(queue):
    inherited = "textworld" in sys.modules and "mementos.core" in sys.modules
    env = gym.make("GenEnv-ALFWorld-v0", data_dir=sys.argv[1])
    observation, _ = env.reset(seed=0)
    queue.put([inherited, gc.get_freeze_count() > 0, observation])

context = multiprocessing.get_context("fork")
queue = context.Queue()
process = context.Process(target=copy, args=(queue,))
process.start()
inherited, frozen, observation = queue.get(timeout=120)
process.join()
fresh = gym.make("GenEnv-ALFWorld-v0", data_dir=sys.argv[1])
same = observation == fresh.reset(seed=0)[0]
print(json.dumps([made_lazily, inherited, frozen, same, gc.get_freeze_count()]))
"""


def test_forked_copies_inherit_the_engine_and_keep_its_pages_shared(alfworld_tiny_root, tmp_path):
    env = {"PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(FORK_CHECK), alfworld_tiny_root],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    made_lazily, inherited, frozen, same, parent_frozen = json.loads(result.stdout.splitlines()[-1])
    assert made_lazily  # gym.make alone imports no engine
    assert inherited  # the parent imported it and played a game right before it forked
    assert frozen and parent_frozen == 0  # the copy froze what it inherited; the parent froze nothing
    assert same
    assert "Exception ignored" not in result.stderr  # the fork handlers of logging stay paired


def test_a_planner_translation_never_evicts_the_plain_one_of_its_game(monkeypatch):
    monkeypatch.setattr(engine_module, "TRANSLATION_CACHE_SIZE", 1)
    engine_module.clear_caches()
    try:
        plain, planner, newer = ("a" * 40, False), ("a" * 40, True), ("b" * 40, False)
        engine_module.remember_translation(plain, "plain")
        engine_module.remember_translation(planner, "planner")
        assert dict(engine_module._TRANSLATIONS) == {plain: "plain", planner: "planner"}
        engine_module.remember_translation(newer, "newer")  # the oldest plain one goes, the planner's stays
        assert dict(engine_module._TRANSLATIONS) == {planner: "planner", newer: "newer"}
    finally:
        engine_module.clear_caches()


def test_the_mmap_threshold_is_fixed_once_unless_the_user_chose_one(monkeypatch):
    glibc = engine_module._malloc_trim() is not None
    engine_module.keep_large_blocks_mapped.cache_clear()
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")
    assert engine_module.keep_large_blocks_mapped() is False  # the user's choice is left alone
    engine_module.keep_large_blocks_mapped.cache_clear()
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")
    assert engine_module.keep_large_blocks_mapped() is glibc
    engine_module.keep_large_blocks_mapped.cache_clear()


def test_prepare_stores_each_missing_translation_once_and_remakes_a_damaged_one(alfworld_tiny_root, tmp_path):
    from genenv_gym.envs.alfworld.domain import ALFWorldDomain

    domain = ALFWorldDomain(data_dir=alfworld_tiny_root, scene_split="valid_unseen", plan_cache=str(tmp_path))
    games = domain.games(None)
    assert domain.prepare() == len(games) > 0
    assert domain.prepare() == 0  # all stored: nothing made
    damaged = stored_file(domain.translations, read_game(games[0].path))
    damaged.write_bytes(b"not a translation")
    assert domain.prepare() == 1
    domain.close()
    no_store = ALFWorldDomain(data_dir=alfworld_tiny_root, scene_split="valid_unseen", plan_cache=None)
    assert no_store.prepare() == 0
    no_store.close()
