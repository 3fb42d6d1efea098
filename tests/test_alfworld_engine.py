"""The cached engine says exactly what textworld's own PddlEnv says, game after game, reset after reset."""

import sys

import numpy as np
import pytest

from genenv_gym.envs.alfworld.data import discover_games
from genenv_gym.envs.alfworld.planner import plan_in_process

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def games(alfworld_data_dir: str):
    games = discover_games(alfworld_data_dir)
    return [games[0], games[40], games[-1]]  # look_at, clean, pick_two


def transcript(engine, game, rng):
    """Reset twice, then the walkthrough with random admissible and inadmissible commands mixed in, and a
    plan asked for midway."""
    engine.load(game.path)
    engine.reset()
    state = engine.reset()
    states = [state]
    for k, command in enumerate(game.walkthrough):
        if k == len(game.walkthrough) // 2:
            states.append(engine.plan())  # planning midway must not disturb the game
        for extra in (str(rng.choice(state.admissible_commands)), "put nothing nowhere"):
            if rng.random() < 0.4:
                state = engine.step(extra)
                states.append(state)
        state = engine.step(command)
        states.append(state)
    return states


def test_cached_engine_matches_the_raw_engine(games):
    from genenv_gym.envs.alfworld.engine import AlfredEngine, clear_caches

    clear_caches()
    raw, cached = AlfredEngine(cached=False), AlfredEngine()
    for seed, game in enumerate(games):
        # the raw engine diverges from the walkthrough exactly where the cached one does: same rng draws
        expected = transcript(raw, game, np.random.default_rng(seed))
        assert transcript(cached, game, np.random.default_rng(seed)) == expected
        assert transcript(cached, game, np.random.default_rng(seed)) == expected  # warm caches too
    raw.close()
    cached.close()


def test_engine_keeps_sys_argv_and_plans(games):
    from genenv_gym.envs.alfworld.engine import AlfredEngine

    argv = list(sys.argv)
    engine = AlfredEngine()
    engine.load(games[1].path)
    state = engine.reset()
    assert sys.argv == argv  # textworld's translator overwrites sys.argv; the engine puts it back
    assert not state.won and state.moved
    plan = engine.plan()
    assert len(plan) == len(games[1].walkthrough)
    for command in plan:
        state = engine.step(command)
    assert state.won and sys.argv == argv
    nothing = engine.step("fly away")
    assert nothing.feedback == "Nothing happens." and not nothing.moved
    outcome = plan_in_process(engine, {"pddl_domain": "", "grammar": "", "pddl_problem": ""})
    assert outcome.status == "error" and "engine error" in outcome.reason
